#include "util/alloc.h"
#include "hoodie/common.h"
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <stdint.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <string.h>

char *hoodie_strndup(const hoodie_allocator *a, const char *s, size_t n)
{
    char *p;
    if (!s) return NULL;
    p = hoodie_malloc(a, n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void hoodie_tune_allocator(void)
{
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    mallopt(M_TOP_PAD, 64 << 20);
#endif
}

void hoodie_mem_repeat(void *dst, const void *src, size_t len, size_t n)
{
    uint8_t *d = dst;
    size_t total = len * n;
    if (!total) return;
    memcpy(d, src, len);
    for (size_t have = len; have < total;) {
        size_t k = have < total - have ? have : total - have;
        memcpy(d + have, d, k);
        have += k;
    }
}

void hoodie_mem_advise_huge(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (!p || n < ((size_t)4 << 20)) return;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), e = ((uintptr_t)p + n) & ~(huge - 1);
    if (e > a) (void)madvise((void *)a, (size_t)(e - a), MADV_HUGEPAGE); /* advice: a failure changes nothing */
#else
    (void)p;
    (void)n;
#endif
}

char *hoodie_strdup(const hoodie_allocator *a, const char *s)
{
    return s ? hoodie_strndup(a, s, strlen(s)) : NULL;
}
