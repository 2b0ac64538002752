#include "util/alloc.h"
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

char *hoodie_strdup(const hoodie_allocator *a, const char *s)
{
    return s ? hoodie_strndup(a, s, strlen(s)) : NULL;
}
