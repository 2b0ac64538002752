/*
 * Hashing and an open-addressing hash map from byte-string keys to 64-bit values.
 * Keys are borrowed: the caller keeps the key bytes alive (an arena, a batch) as long as the map.
 */
#ifndef HOODIE_UTIL_HASH_H
#define HOODIE_UTIL_HASH_H

#include <stdint.h>
#include <stddef.h>
#include "hoodie/common.h"

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

#endif
