#include "util/hash.h"
#include "util/alloc.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

static inline uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint64_t mix(uint64_t a, uint64_t b)
{
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

uint64_t hoodie_hash_bytes(const void *data, size_t n, uint64_t seed)
{
    const uint8_t *p = data;
    const uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull, k2 = 0x8ebc6af09c88c6e3ull;
    uint64_t h = seed ^ k0 ^ (uint64_t)n * k2;
    while (n >= 16) {
        h = mix(rd64(p) ^ k1, rd64(p + 8) ^ h);
        p += 16;
        n -= 16;
    }
    uint64_t a = 0, b = 0;
    if (n >= 8) { a = rd64(p); b = rd64(p + n - 8); }
    else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, p, 4); memcpy(&y, p + n - 4, 4);
        a = x; b = y;
    } else if (n > 0) {
        a = (uint64_t)p[0] << 16 | (uint64_t)p[n >> 1] << 8 | p[n - 1];
    }
    return mix(a ^ k1 ^ h, b ^ k2);
}

hoodie_status hoodie_hmap_init(hoodie_hmap *m, size_t expected)
{
    size_t cap = 16;
    while (cap < expected + expected / 2 + 1) cap *= 2;
    m->slots = calloc(cap, sizeof *m->slots);
    hoodie_mem_advise_huge(m->slots, cap * sizeof *m->slots);
    if (!m->slots) { m->cap = m->count = 0; return HOODIE_NOMEM(); }
    m->cap = cap;
    m->count = 0;
    return HOODIE_OK;
}

void hoodie_hmap_dispose(hoodie_hmap *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->count = 0;
}

void hoodie_hmap_clear(hoodie_hmap *m)
{
    if (m->slots) memset(m->slots, 0, m->cap * sizeof *m->slots);
    m->count = 0;
}

static hoodie_hmap_entry *find_slot(hoodie_hmap_entry *slots, size_t cap, const void *key, size_t len, uint32_t h)
{
    size_t mask = cap - 1, i = h & mask;
    for (;;) {
        hoodie_hmap_entry *e = &slots[i];
        if (!e->key) return e;
        if (e->hash32 == h && e->key_len == len && hoodie_bytes_eq(e->key, key, len)) return e;
        i = (i + 1) & mask;
    }
}

static hoodie_status grow(hoodie_hmap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 16;
    hoodie_hmap_entry *ns = calloc(ncap, sizeof *ns);
    if (!ns) return HOODIE_NOMEM();
    hoodie_mem_advise_huge(ns, ncap * sizeof *ns);
    for (size_t i = 0; i < m->cap; i++) {
        hoodie_hmap_entry *e = &m->slots[i];
        if (e->key) *find_slot(ns, ncap, e->key, e->key_len, e->hash32) = *e;
    }
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
    return HOODIE_OK;
}

hoodie_status hoodie_hmap_upsert(hoodie_hmap *m, const void *key, size_t key_len, uint64_t **slot, int *existed)
{
    return hoodie_hmap_upsert_hashed(m, key, key_len, hoodie_hmap_hash(key, key_len), slot, existed);
}

hoodie_status hoodie_hmap_upsert_hashed(hoodie_hmap *m, const void *key, size_t key_len, uint32_t h, uint64_t **slot,
                                        int *existed)
{
    static const uint8_t empty_key[1] = { 0 };
    if (key_len > UINT32_MAX) return HOODIE_FAIL(HOODIE_EINVAL, "hash key too long");
    if ((m->count + 1) * 4 > m->cap * 3) HOODIE_TRY(grow(m));
    hoodie_hmap_entry *e = find_slot(m->slots, m->cap, key, key_len, h);
    if (e->key) {
        *existed = 1;
    } else {
        *existed = 0;
        e->key = key_len ? key : empty_key;
        e->key_len = (uint32_t)key_len;
        e->hash32 = h;
        e->value = 0;
        m->count++;
    }
    *slot = &e->value;
    return HOODIE_OK;
}

uint64_t *hoodie_hmap_get(const hoodie_hmap *m, const void *key, size_t key_len)
{
    return hoodie_hmap_get_hashed(m, key, key_len, hoodie_hmap_hash(key, key_len));
}

uint64_t *hoodie_hmap_get_hashed(const hoodie_hmap *m, const void *key, size_t key_len, uint32_t h)
{
    if (!m->cap) return NULL;
    hoodie_hmap_entry *e = find_slot(m->slots, m->cap, key, key_len, h);
    return e->key ? &e->value : NULL;
}
