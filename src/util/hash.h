/*
 * Hashing and an open-addressing hash map from byte-string keys to 64-bit values.
 * Keys are borrowed: the caller keeps the key bytes alive (an arena, a batch) as long as the map.
 */
#ifndef HOODIE_UTIL_HASH_H
#define HOODIE_UTIL_HASH_H

#include <stdint.h>
#include <stddef.h>
#include "hoodie/common.h"

/** a[0..n) == b[0..n), inline: 8 bytes at a time (short keys and strings; no call to memcmp). */
static inline int hoodie_bytes_eq(const void *a, const void *b, size_t n)
{
    const uint8_t *p = a, *q = b;
    uint64_t x, y;
    if (n >= 8) {
        for (; n > 8; p += 8, q += 8, n -= 8) {
            __builtin_memcpy(&x, p, 8);
            __builtin_memcpy(&y, q, 8);
            if (x != y) return 0;
        }
        __builtin_memcpy(&x, p + n - 8, 8); /* the last 8 bytes, overlapping the ones compared */
        __builtin_memcpy(&y, q + n - 8, 8);
        return x == y;
    }
    if (n >= 4) {
        uint32_t u, v, u2, v2;
        __builtin_memcpy(&u, p, 4);
        __builtin_memcpy(&v, q, 4);
        __builtin_memcpy(&u2, p + n - 4, 4);
        __builtin_memcpy(&v2, q + n - 4, 4);
        return u == v && u2 == v2;
    }
    for (size_t i = 0; i < n; i++)
        if (p[i] != q[i]) return 0;
    return 1;
}

/** A fast non-cryptographic 64-bit hash (not stable across versions: never persist it). */
uint64_t hoodie_hash_bytes(const void *p, size_t n, uint64_t seed);

typedef struct hoodie_hmap_entry {
    const uint8_t *key; /* borrowed; NULL marks an empty slot */
    uint32_t key_len;
    uint32_t hash32;
    uint64_t value;
} hoodie_hmap_entry;

typedef struct hoodie_hmap {
    hoodie_hmap_entry *slots;
    size_t cap;    /* power of two */
    size_t count;
} hoodie_hmap;

#define HOODIE_HMAP_INIT { NULL, 0, 0 }

hoodie_status hoodie_hmap_init(hoodie_hmap *m, size_t expected);
void hoodie_hmap_dispose(hoodie_hmap *m);
void hoodie_hmap_clear(hoodie_hmap *m);
/**
 * Find `key` or insert it. On return *slot points at the value (valid until the next insert); *existed tells
 * whether the key was there (a new slot's value is 0).
 */
hoodie_status hoodie_hmap_upsert(hoodie_hmap *m, const void *key, size_t key_len, uint64_t **slot, int *existed);
/** The value slot of `key`, or NULL. */
uint64_t *hoodie_hmap_get(const hoodie_hmap *m, const void *key, size_t key_len);

/*
 * Batched probing: a map larger than the caches costs a miss per probe (the slot) and one per hit (the key).
 * Hash a batch of keys first, then while probing key i, prefetch the home slot of key i + far and, through the
 * already loaded home slot of key i + near, that key's bytes. Results equal hoodie_hmap_get / _upsert.
 */
#define HOODIE_PREFETCH(p) __builtin_prefetch(p)
/** The hash the map uses for `key`. */
static inline uint32_t hoodie_hmap_hash(const void *key, size_t key_len)
{
    return (uint32_t)hoodie_hash_bytes(key, key_len, 0);
}
/** Prefetch the slot where probing for hash `h` starts. */
static inline void hoodie_hmap_prefetch(const hoodie_hmap *m, uint32_t h)
{
    if (m->cap) HOODIE_PREFETCH(&m->slots[h & (m->cap - 1)]);
}
/** The home slot of hash `h` if it holds a key of that hash (the key probably), else NULL; prefetches the key. */
static inline const hoodie_hmap_entry *hoodie_hmap_peek(const hoodie_hmap *m, uint32_t h)
{
    if (!m->cap) return NULL;
    const hoodie_hmap_entry *e = &m->slots[h & (m->cap - 1)];
    if (!e->key || e->hash32 != h) return NULL;
    HOODIE_PREFETCH(e->key);
    return e;
}
/** hoodie_hmap_get / hoodie_hmap_upsert with the key's hoodie_hmap_hash given. */
uint64_t *hoodie_hmap_get_hashed(const hoodie_hmap *m, const void *key, size_t key_len, uint32_t h);
hoodie_status hoodie_hmap_upsert_hashed(hoodie_hmap *m, const void *key, size_t key_len, uint32_t h, uint64_t **slot,
                                        int *existed);

#endif
