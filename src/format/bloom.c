#include "format/bloom.h"
#include "util/base64.h"
#include "util/cursor.h"
#include "util/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int32_t hoodie_bloom_murmur(const uint8_t *data, size_t len, int32_t seed)
{
    const uint32_t m = 0x5bd1e995u;
    const int r = 24;
    uint32_t h = (uint32_t)seed ^ (uint32_t)len;
    size_t len4 = len >> 2;
    for (size_t i = 0; i < len4; i++) {
        const uint8_t *p = data + 4 * i;
        uint32_t k = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        k *= m;
        k ^= k >> r;
        k *= m;
        h *= m;
        h ^= k;
    }
    size_t left = len - (len4 << 2);
    if (left) {
        /* Java promotes the tail bytes as signed (byte -> int): keep that sign extension. */
        if (left >= 3) h ^= (uint32_t)(int32_t)(int8_t)data[len - 3] << 16;
        if (left >= 2) h ^= (uint32_t)(int32_t)(int8_t)data[len - 2] << 8;
        h ^= (uint32_t)(int32_t)(int8_t)data[len - 1];
        h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return (int32_t)h;
}

static size_t row_bytes(const hoodie_bloom *b) { return ((size_t)b->vector_size + 7) / 8; }

static hoodie_status add_row(hoodie_bloom *b)
{
    uint8_t **n = realloc(b->bits, ((size_t)b->rows + 1) * sizeof *n);
    if (!n) return HOODIE_NOMEM();
    b->bits = n;
    n[b->rows] = calloc(1, row_bytes(b) ? row_bytes(b) : 1);
    if (!n[b->rows]) return HOODIE_NOMEM();
    b->rows++;
    return HOODIE_OK;
}

hoodie_status hoodie_bloom_init(hoodie_bloom *b, hoodie_bloom_type type, int32_t num_entries, double fpp,
                                int32_t max_entries)
{
    memset(b, 0, sizeof *b);
    if (num_entries <= 0 || !(fpp > 0 && fpp < 1))
        return HOODIE_FAIL(HOODIE_EINVAL, "bloom filter needs num_entries > 0 and 0 < fpp < 1");
    double mm = ceil((double)num_entries * (-log(fpp) / (log(2.0) * log(2.0))));
    if (mm > INT32_MAX) return HOODIE_FAIL(HOODIE_EINVAL, "bloom filter too large");
    b->type = type;
    b->vector_size = (int32_t)mm;
    b->nb_hash = (int32_t)ceil(log(2.0) * mm / (double)num_entries);
    b->nr = num_entries;
    b->max_nr = max_entries > 0 ? max_entries : num_entries;
    hoodie_status rc = add_row(b);
    if (rc < 0) hoodie_bloom_dispose(b);
    return rc;
}

void hoodie_bloom_dispose(hoodie_bloom *b)
{
    for (int32_t i = 0; i < b->rows; i++) free(b->bits[i]);
    free(b->bits);
    memset(b, 0, sizeof *b);
}

/*
 * The k chained hashes of a key (each seeded with the previous one), as bit positions. Murmur's per-block mixing
 * does not depend on the seed: it is done once per key, and each of the k hashes only folds the mixed blocks in.
 */
#define PREMIX_BLOCKS 64

/* Java's Math.abs(h % m) for m > 0: |h| (as unsigned, so INT_MIN works) mod m, by multiplication (Lemire's
 * fastmod with the 64-bit reciprocal `c` of m) instead of a division per hash. */
static inline uint64_t fastmod_c(uint32_t m) { return UINT64_C(0xFFFFFFFFFFFFFFFF) / m + 1; }
static inline int32_t abs_mod(uint32_t h, uint32_t m, uint64_t c)
{
    uint32_t a = (int32_t)h < 0 ? 0u - h : h;
    uint64_t low = c * a;
    return (int32_t)(((__uint128_t)low * m) >> 64);
}
static void positions(const hoodie_bloom *b, const uint8_t *key, size_t len, int32_t *out)
{
    const uint32_t m = 0x5bd1e995u;
    size_t len4 = len >> 2;
    if (len4 > PREMIX_BLOCKS) {
        int32_t h = 0;
        for (int32_t i = 0; i < b->nb_hash; i++) {
            h = hoodie_bloom_murmur(key, len, h);
            int32_t pos = h % b->vector_size;
            out[i] = pos < 0 ? -pos : pos;
        }
        return;
    }
    uint32_t mixed[PREMIX_BLOCKS];
    for (size_t i = 0; i < len4; i++) {
        const uint8_t *p = key + 4 * i;
        uint32_t k = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        k *= m;
        k ^= k >> 24;
        k *= m;
        mixed[i] = k;
    }
    size_t left = len - (len4 << 2);
    uint32_t tail = 0;
    if (left >= 3) tail ^= (uint32_t)(int32_t)(int8_t)key[len - 3] << 16;
    if (left >= 2) tail ^= (uint32_t)(int32_t)(int8_t)key[len - 2] << 8;
    if (left >= 1) tail ^= (uint32_t)(int32_t)(int8_t)key[len - 1];
    int32_t seed = 0;
    const uint64_t c = fastmod_c((uint32_t)b->vector_size);
    for (int32_t i = 0; i < b->nb_hash; i++) {
        uint32_t h = (uint32_t)seed ^ (uint32_t)len;
        for (size_t j = 0; j < len4; j++) {
            h *= m;
            h ^= mixed[j];
        }
        if (left) {
            h ^= tail;
            h *= m;
        }
        h ^= h >> 13;
        h *= m;
        h ^= h >> 15;
        seed = (int32_t)h;
        out[i] = abs_mod(h, (uint32_t)b->vector_size, c);
    }
}

/* positions() of four keys at once, their hash chains interleaved step by step. */
static void positions4(const hoodie_bloom *b, const uint8_t *const *key, const size_t *len, int32_t (*out)[256])
{
    const uint32_t m = 0x5bd1e995u;
    uint32_t mixed[4][PREMIX_BLOCKS], tail[4], seed[4] = { 0, 0, 0, 0 };
    size_t len4[4], left[4];
    const uint64_t c = fastmod_c((uint32_t)b->vector_size);
    for (int j = 0; j < 4; j++) {
        len4[j] = len[j] >> 2;
        left[j] = len[j] - (len4[j] << 2);
        for (size_t i = 0; i < len4[j]; i++) {
            const uint8_t *p = key[j] + 4 * i;
            uint32_t k = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            k *= m;
            k ^= k >> 24;
            k *= m;
            mixed[j][i] = k;
        }
        const uint8_t *kk = key[j];
        size_t l = len[j];
        tail[j] = 0;
        if (left[j] >= 3) tail[j] ^= (uint32_t)(int32_t)(int8_t)kk[l - 3] << 16;
        if (left[j] >= 2) tail[j] ^= (uint32_t)(int32_t)(int8_t)kk[l - 2] << 8;
        if (left[j] >= 1) tail[j] ^= (uint32_t)(int32_t)(int8_t)kk[l - 1];
    }
    for (int32_t i = 0; i < b->nb_hash; i++) {
        for (int j = 0; j < 4; j++) {
            uint32_t h = seed[j] ^ (uint32_t)len[j];
            for (size_t q = 0; q < len4[j]; q++) {
                h *= m;
                h ^= mixed[j][q];
            }
            if (left[j]) {
                h ^= tail[j];
                h *= m;
            }
            h ^= h >> 13;
            h *= m;
            h ^= h >> 15;
            seed[j] = h;
            out[j][i] = abs_mod(h, (uint32_t)b->vector_size, c);
        }
    }
}

static void set_bits(const hoodie_bloom *b, uint8_t *row, const uint8_t *key, size_t len)
{
    int32_t pos[256];
    if (b->nb_hash > 256) {
        int32_t h = 0;
        for (int32_t i = 0; i < b->nb_hash; i++) {
            h = hoodie_bloom_murmur(key, len, h);
            int32_t p = h % b->vector_size;
            if (p < 0) p = -p;
            row[p >> 3] |= (uint8_t)(1u << (p & 7));
        }
        return;
    }
    positions(b, key, len, pos);
    for (int32_t i = 0; i < b->nb_hash; i++) row[pos[i] >> 3] |= (uint8_t)(1u << (pos[i] & 7));
}

static int test_row(const hoodie_bloom *b, const uint8_t *row, const uint8_t *key, size_t len)
{
    int32_t h = 0;
    for (int32_t i = 0; i < b->nb_hash; i++) {
        h = hoodie_bloom_murmur(key, len, h);
        int32_t pos = h % b->vector_size;
        if (pos < 0) pos = -pos;
        if (!((row[pos >> 3] >> (pos & 7)) & 1)) return 0;
    }
    return 1;
}

static hoodie_status next_row(hoodie_bloom *b, uint8_t **row);

hoodie_status hoodie_bloom_add(hoodie_bloom *b, const void *key, size_t len)
{
    uint8_t *row;
    HOODIE_TRY(next_row(b, &row));
    set_bits(b, row, key, len);
    return HOODIE_OK;
}

/* The row the next key goes to (InternalDynamicBloomFilter.getActiveStandardBF and the bookkeeping of add). */
static hoodie_status next_row(hoodie_bloom *b, uint8_t **row)
{
    if (b->type == HOODIE_BLOOM_SIMPLE) {
        *row = b->bits[0];
        return HOODIE_OK;
    }
    if (b->reached_max) {
        *row = b->bits[b->round_robin++ % (uint32_t)b->rows];
    } else if (b->current_nb_record >= b->nr && (int64_t)b->rows * b->nr >= b->max_nr) {
        b->reached_max = 1;
        *row = b->bits[0];
    } else {
        if (b->current_nb_record >= b->nr) {
            HOODIE_TRY(add_row(b));
            b->current_nb_record = 0;
        }
        *row = b->bits[b->rows - 1];
    }
    b->current_nb_record++;
    return HOODIE_OK;
}

hoodie_status hoodie_bloom_add_many(hoodie_bloom *b, const uint8_t *const *keys, const size_t *lens, size_t n)
{
    enum { W = 4 };
    int32_t pos[W][256];
    if (b->nb_hash > 256) {
        for (size_t i = 0; i < n; i++) HOODIE_TRY(hoodie_bloom_add(b, keys[i], lens[i]));
        return HOODIE_OK;
    }
    for (size_t i = 0; i < n; i += W) {
        size_t m = n - i < W ? n - i : W;
        /* the W keys' hash chains are independent: computed side by side, they overlap in the CPU */
        if (m == W && lens[i] <= 4 * PREMIX_BLOCKS && lens[i + 1] <= 4 * PREMIX_BLOCKS &&
            lens[i + 2] <= 4 * PREMIX_BLOCKS && lens[i + 3] <= 4 * PREMIX_BLOCKS)
            positions4(b, keys + i, lens + i, pos);
        else
            for (size_t j = 0; j < m; j++) positions(b, keys[i + j], lens[i + j], pos[j]);
        for (size_t j = 0; j < m; j++) {
            uint8_t *row;
            HOODIE_TRY(next_row(b, &row));
            for (int32_t q = 0; q < b->nb_hash; q++) row[pos[j][q] >> 3] |= (uint8_t)(1u << (pos[j][q] & 7));
        }
    }
    return HOODIE_OK;
}

int hoodie_bloom_test(const hoodie_bloom *b, const void *key, size_t len)
{
    for (int32_t i = 0; i < b->rows; i++)
        if (test_row(b, b->bits[i], key, len)) return 1;
    return 0;
}

static hoodie_status put_header(const hoodie_bloom *b, hoodie_buf *out)
{
    HOODIE_TRY(hoodie_buf_put_be32(out, 0xffffffffu));
    HOODIE_TRY(hoodie_buf_put_be32(out, (uint32_t)b->nb_hash));
    HOODIE_TRY(hoodie_buf_putc(out, 1));
    return hoodie_buf_put_be32(out, (uint32_t)b->vector_size);
}

hoodie_status hoodie_bloom_serialize(const hoodie_bloom *b, hoodie_buf *out)
{
    HOODIE_TRY(put_header(b, out));
    if (b->type == HOODIE_BLOOM_SIMPLE) return hoodie_buf_append(out, b->bits[0], row_bytes(b));
    HOODIE_TRY(hoodie_buf_put_be32(out, (uint32_t)b->nr));
    HOODIE_TRY(hoodie_buf_put_be32(out, (uint32_t)b->current_nb_record));
    HOODIE_TRY(hoodie_buf_put_be32(out, (uint32_t)b->rows));
    for (int32_t i = 0; i < b->rows; i++) {
        HOODIE_TRY(put_header(b, out));
        HOODIE_TRY(hoodie_buf_append(out, b->bits[i], row_bytes(b)));
    }
    return HOODIE_OK;
}

hoodie_status hoodie_bloom_to_base64(const hoodie_bloom *b, hoodie_buf *out)
{
    hoodie_buf raw = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_bloom_serialize(b, &raw);
    if (rc == HOODIE_OK) rc = hoodie_base64_encode(raw.data, raw.len, out);
    hoodie_buf_dispose(&raw);
    return rc;
}

static void read_header(hoodie_cursor *c, int32_t *k, int32_t *m)
{
    int32_t version = (int32_t)hoodie_cursor_be32(c);
    if (c->status == HOODIE_OK && version != -1) {
        hoodie_cursor__fail(c, "bloom filter version %d is not supported (pre-versioned Jenkins filter)", version);
        return;
    }
    *k = (int32_t)hoodie_cursor_be32(c);
    uint8_t hash_type = hoodie_cursor_u8(c);
    *m = (int32_t)hoodie_cursor_be32(c);
    if (c->status != HOODIE_OK) return;
    if (hash_type != 1) hoodie_cursor__fail(c, "bloom filter hash type %u is not supported (only Murmur)", hash_type);
    else if (*k <= 0 || *k > 1000 || *m <= 0) hoodie_cursor__fail(c, "bloom filter has k=%d m=%d", *k, *m);
}

hoodie_status hoodie_bloom_from_base64(hoodie_bloom *out, const char *text, size_t len, const char *type_code,
                                       const char *what)
{
    hoodie_buf raw = HOODIE_BUF_INIT;
    hoodie_status rc;
    memset(out, 0, sizeof *out);
    rc = hoodie_base64_decode(text, len, &raw);
    if (rc < 0) {
        hoodie_error__prefix("%s: bloom filter: ", what ? what : "");
        hoodie_buf_dispose(&raw);
        return rc;
    }
    hoodie_cursor c;
    hoodie_cursor_init(&c, raw.data, raw.len, 0, what);
    int32_t k = 0, m = 0;
    if (!type_code || !strcmp(type_code, "SIMPLE")) out->type = HOODIE_BLOOM_SIMPLE;
    else if (!strcmp(type_code, "DYNAMIC_V0")) out->type = HOODIE_BLOOM_DYNAMIC_V0;
    else {
        hoodie_buf_dispose(&raw);
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: bloom filter type %s is not supported", what ? what : "",
                           type_code);
    }
    read_header(&c, &k, &m);
    out->nb_hash = k;
    out->vector_size = m;
    int32_t rows = 1;
    if (c.status == HOODIE_OK && out->type == HOODIE_BLOOM_DYNAMIC_V0) {
        out->nr = (int32_t)hoodie_cursor_be32(&c);
        out->current_nb_record = (int32_t)hoodie_cursor_be32(&c);
        rows = (int32_t)hoodie_cursor_be32(&c);
        out->max_nr = INT32_MAX;
        if (c.status == HOODIE_OK && (rows <= 0 || (uint64_t)rows * (((uint64_t)m + 7) / 8) > hoodie_cursor_left(&c)))
            hoodie_cursor__fail(&c, "bloom filter claims %d rows", rows);
    }
    for (int32_t i = 0; c.status == HOODIE_OK && i < rows; i++) {
        if (out->type == HOODIE_BLOOM_DYNAMIC_V0) {
            int32_t rk = 0, rm = 0;
            read_header(&c, &rk, &rm);
            if (c.status == HOODIE_OK && (rk != k || rm != m))
                hoodie_cursor__fail(&c, "bloom filter row %d has k=%d m=%d, header says k=%d m=%d", i, rk, rm, k, m);
        }
        const uint8_t *bits = hoodie_cursor_bytes(&c, ((size_t)m + 7) / 8);
        if (!bits) break;
        if ((rc = add_row(out)) < 0) break;
        memcpy(out->bits[i], bits, ((size_t)m + 7) / 8);
    }
    if (rc == HOODIE_OK) rc = c.status;
    hoodie_buf_dispose(&raw);
    if (rc < 0) hoodie_bloom_dispose(out);
    return rc;
}
