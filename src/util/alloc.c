#include "util/alloc.h"
#include "hoodie/common.h"
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <stdint.h>
#include <stdio.h>
#if defined(__linux__)
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>
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

#if defined(__linux__) && defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
/* True when the kernel gives transparent huge pages only to mappings that ask (THP "madvise" mode). */
static int thp_madvise_mode(void)
{
    char buf[128];
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, "[madvise]") != NULL;
}

void hoodie_tune_process(char **argv)
{
    static const char tunable[] = "glibc.malloc.hugetlb=1";
    hoodie_tune_allocator();
    if (!argv || !argv[0] || getauxval(AT_SECURE)) return; /* setuid: glibc drops GLIBC_TUNABLES, never loop */
    const char *want = getenv("HOODIE_HUGEPAGES"); /* on unless "0": see hoodie_tune_process in hoodie/common.h */
    if (want && !strcmp(want, "0")) return;
    const char *old = getenv("GLIBC_TUNABLES");
    if (old && strstr(old, "glibc.malloc.hugetlb")) return; /* set already: by us before exec, or by the user */
    if (!thp_madvise_mode()) return;
    size_t on = old ? strlen(old) : 0;
    char *val = malloc(on + sizeof tunable + 1);
    if (!val) return;
    if (on) { memcpy(val, old, on); val[on++] = ':'; }
    memcpy(val + on, tunable, sizeof tunable);
    char *saved = old ? strdup(old) : NULL;
    if ((old && !saved) || setenv("GLIBC_TUNABLES", val, 1)) { free(val); free(saved); return; }
    free(val);
    fflush(NULL);
    execv("/proc/self/exe", argv); /* returns only on failure: run on as we are */
    if (saved) setenv("GLIBC_TUNABLES", saved, 1); else unsetenv("GLIBC_TUNABLES");
    free(saved);
}
#else
void hoodie_tune_process(char **argv)
{
    (void)argv;
    hoodie_tune_allocator();
}
#endif

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
