/*
 * A region allocator. Everything allocated from an arena is released together by hoodie_arena_reset() or
 * hoodie_arena_free(); nothing is freed singly. One arena per unit of work (a footer, a commit, a log block).
 * With HOODIE_DEBUG_ARENA set in the environment at creation, every allocation is its own malloc so that ASan
 * sees overruns between objects.
 */
#ifndef HOODIE_UTIL_ARENA_H
#define HOODIE_UTIL_ARENA_H

#include <stddef.h>
#include "hoodie/common.h"

typedef struct hoodie_arena hoodie_arena;

hoodie_status hoodie_arena_new(hoodie_arena **out, const hoodie_allocator *alloc, size_t block_size);
/** 16-byte aligned; NULL (with HOODIE_ENOMEM recorded) on failure. size 0 gives a valid unique pointer. */
void *hoodie_arena_alloc(hoodie_arena *a, size_t size);
void *hoodie_arena_calloc(hoodie_arena *a, size_t count, size_t size);
void *hoodie_arena_memdup(hoodie_arena *a, const void *src, size_t size);
/** NUL-terminated copy of s[0..n). */
char *hoodie_arena_strndup(hoodie_arena *a, const char *s, size_t n);
char *hoodie_arena_strdup(hoodie_arena *a, const char *s);
char *hoodie_arena_sprintf(hoodie_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Release everything; keeps the first block for reuse. */
void hoodie_arena_reset(hoodie_arena *a);
/** NULL is a no-op. */
void hoodie_arena_free(hoodie_arena *a);
/** Bytes handed out since the last reset (for memory accounting). */
size_t hoodie_arena_used(const hoodie_arena *a);

#endif
