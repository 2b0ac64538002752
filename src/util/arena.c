#include "util/arena.h"
#include "util/alloc.h"
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct arena_block {
    struct arena_block *next;
    size_t cap, used;
    _Alignas(16) unsigned char data[];
} arena_block;

struct hoodie_arena {
    const hoodie_allocator *alloc;
    size_t block_size;
    size_t used_total;
    int debug;              /* one malloc per allocation */
    arena_block *head;      /* current block first */
};

hoodie_status hoodie_arena_new(hoodie_arena **out, const hoodie_allocator *alloc, size_t block_size)
{
    hoodie_arena *a = hoodie_malloc(alloc, sizeof *a);
    *out = NULL;
    if (!a) return HOODIE_NOMEM();
    a->alloc = alloc;
    a->block_size = block_size < 256 ? 256 : block_size;
    a->used_total = 0;
    a->debug = getenv("HOODIE_DEBUG_ARENA") != NULL;
    a->head = NULL;
    *out = a;
    return HOODIE_OK;
}

void *hoodie_arena_alloc(hoodie_arena *a, size_t size)
{
    size_t need = (size + 15) & ~(size_t)15;
    arena_block *b = a->head;
    if (need < size) { HOODIE_NOMEM(); return NULL; }
    if (a->debug || !b || b->cap - b->used < need) {
        size_t cap = a->debug ? need : (need > a->block_size ? need : a->block_size);
        size_t total;
        if (hoodie_add_overflow(cap, sizeof(arena_block), &total)) { HOODIE_NOMEM(); return NULL; }
        arena_block *nb = hoodie_malloc(a->alloc, total);
        if (!nb) { HOODIE_NOMEM(); return NULL; }
        nb->cap = cap;
        nb->used = 0;
        if (b && !a->debug && need > a->block_size && b->cap - b->used >= 64) {
            /* A big one-off allocation: keep the current block current. */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    void *p = b->data + b->used;
    b->used += need;
    a->used_total += need;
    return p;
}

void *hoodie_arena_calloc(hoodie_arena *a, size_t count, size_t size)
{
    size_t n;
    if (hoodie_mul_overflow(count, size, &n)) { HOODIE_NOMEM(); return NULL; }
    void *p = hoodie_arena_alloc(a, n);
    if (p) memset(p, 0, n);
    return p;
}

void *hoodie_arena_memdup(hoodie_arena *a, const void *src, size_t size)
{
    void *p = hoodie_arena_alloc(a, size);
    if (p && size) memcpy(p, src, size);
    return p;
}

char *hoodie_arena_strndup(hoodie_arena *a, const char *s, size_t n)
{
    char *p = hoodie_arena_alloc(a, n + 1);
    if (!p) return NULL;
    if (n) memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *hoodie_arena_strdup(hoodie_arena *a, const char *s)
{
    return s ? hoodie_arena_strndup(a, s, strlen(s)) : NULL;
}

char *hoodie_arena_sprintf(hoodie_arena *a, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = n >= 0 ? hoodie_arena_alloc(a, (size_t)n + 1) : NULL;
    if (p) vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

void hoodie_arena_reset(hoodie_arena *a)
{
    arena_block *b, *keep = NULL;
    if (!a) return;
    b = a->head;
    while (b) {
        arena_block *next = b->next;
        if (!next && !a->debug && b->cap == a->block_size) keep = b; /* the first, standard-size block */
        else hoodie_free(a->alloc, b);
        b = next;
    }
    if (keep) { keep->used = 0; keep->next = NULL; }
    a->head = keep;
    a->used_total = 0;
}

void hoodie_arena_free(hoodie_arena *a)
{
    if (!a) return;
    arena_block *b = a->head;
    while (b) {
        arena_block *next = b->next;
        hoodie_free(a->alloc, b);
        b = next;
    }
    hoodie_free(a->alloc, a);
}

size_t hoodie_arena_used(const hoodie_arena *a) { return a ? a->used_total : 0; }
