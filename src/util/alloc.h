/* Allocation through a hoodie_allocator (NULL: libc). Failures return NULL; callers report HOODIE_ENOMEM. */
#ifndef HOODIE_UTIL_ALLOC_H
#define HOODIE_UTIL_ALLOC_H

#include <stdlib.h>
#include "hoodie/common.h"

static inline void *hoodie_malloc(const hoodie_allocator *a, size_t n)
{
    return a && a->alloc_fn ? a->alloc_fn(a->ctx, n) : malloc(n ? n : 1);
}
static inline void *hoodie_realloc(const hoodie_allocator *a, void *p, size_t n)
{
    return a && a->realloc_fn ? a->realloc_fn(a->ctx, p, n) : realloc(p, n ? n : 1);
}
static inline void hoodie_free(const hoodie_allocator *a, void *p)
{
    if (a && a->free_fn) a->free_fn(a->ctx, p); else free(p);
}
static inline void *hoodie_calloc(const hoodie_allocator *a, size_t count, size_t size)
{
    size_t n;
    void *p;
    if (__builtin_mul_overflow(count, size, &n)) return NULL;
    p = hoodie_malloc(a, n);
    if (p) { unsigned char *q = p; for (size_t i = 0; i < n; i++) q[i] = 0; }
    return p;
}
/**
 * Ask the kernel to back a large block (a hash table, a column buffer) with transparent huge pages where it
 * allows that per mapping (THP "madvise" mode): the merges probe tables of millions of entries at random, and
 * 4 KiB pages made a fifth of a snapshot read TLB misses. Blocks under 4 MiB and systems without it: nothing.
 */
void hoodie_mem_advise_huge(void *p, size_t n);
/** `n` copies of the `len` bytes at `src` at `dst` (non-overlapping): one copy, then the filled bytes doubled. */
void hoodie_mem_repeat(void *dst, const void *src, size_t len, size_t n);
/** strdup through the allocator; NULL in gives NULL out. */
char *hoodie_strdup(const hoodie_allocator *a, const char *s);
char *hoodie_strndup(const hoodie_allocator *a, const char *s, size_t n);

#endif
