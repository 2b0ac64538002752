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
 * Positions are written hash-major: pos[i][lane] is hash i of the lane's key, for up to VW keys at a time.
 */
#define PREMIX_BLOCKS 64
#define MURMUR_M 0x5bd1e995u
enum { VW = 16 };

static inline uint32_t premix(uint32_t k)
{
    k *= MURMUR_M;
    k ^= k >> 24;
    return k * MURMUR_M;
}
static inline uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
/* Java promotes the tail bytes as signed (byte -> int): keep that sign extension. */
static inline uint32_t tail_of(const uint8_t *key, size_t len)
{
    size_t left = len & 3;
    uint32_t tail = 0;
    if (left >= 3) tail ^= (uint32_t)(int32_t)(int8_t)key[len - 3] << 16;
    if (left >= 2) tail ^= (uint32_t)(int32_t)(int8_t)key[len - 2] << 8;
    if (left >= 1) tail ^= (uint32_t)(int32_t)(int8_t)key[len - 1];
    return tail;
}

/* Java's Math.abs(h % m) for m > 0: |h| (as unsigned, so INT_MIN works) mod m, by multiplication (Lemire's
 * fastmod with the 64-bit reciprocal `c` of m) instead of a division per hash. */
static inline uint64_t fastmod_c(uint32_t m) { return UINT64_C(0xFFFFFFFFFFFFFFFF) / m + 1; }
static inline int32_t abs_mod(uint32_t h, uint32_t m, uint64_t c)
{
    uint32_t a = (int32_t)h < 0 ? 0u - h : h;
    uint64_t low = c * a;
    return (int32_t)(((__uint128_t)low * m) >> 64);
}

/* One key's hash chain, a position at a time (so a test can stop at the first clear bit). */
typedef struct chain {
    const uint8_t *key;
    size_t len, len4;
    uint32_t seed, tail, m;
    uint64_t c;
    uint32_t mixed[PREMIX_BLOCKS];
} chain;

static void chain_init_m(chain *ch, int32_t m, const uint8_t *key, size_t len)
{
    ch->key = key;
    ch->len = len;
    ch->len4 = len >> 2;
    ch->seed = 0;
    ch->m = (uint32_t)m;
    ch->c = fastmod_c(ch->m);
    if (ch->len4 > PREMIX_BLOCKS) return; /* long keys hash from the bytes each time */
    for (size_t i = 0; i < ch->len4; i++) ch->mixed[i] = premix(le32(key + 4 * i));
    ch->tail = tail_of(key, len);
}

static void chain_init(chain *ch, const hoodie_bloom *b, const uint8_t *key, size_t len)
{
    chain_init_m(ch, b->vector_size, key, len);
}

static inline int32_t chain_next(chain *ch)
{
    uint32_t h;
    if (ch->len4 > PREMIX_BLOCKS) {
        h = (uint32_t)hoodie_bloom_murmur(ch->key, ch->len, (int32_t)ch->seed);
    } else {
        h = ch->seed ^ (uint32_t)ch->len;
        for (size_t j = 0; j < ch->len4; j++) h = h * MURMUR_M ^ ch->mixed[j];
        if (ch->len & 3) h = (h ^ ch->tail) * MURMUR_M;
        h ^= h >> 13;
        h *= MURMUR_M;
        h ^= h >> 15;
    }
    ch->seed = h;
    return abs_mod(h, ch->m, ch->c);
}

static void positions(const hoodie_bloom *b, const uint8_t *key, size_t len, int32_t (*out)[VW], int lane)
{
    chain ch;
    chain_init(&ch, b, key, len);
    for (int32_t i = 0; i < b->nb_hash; i++) out[i][lane] = chain_next(&ch);
}

/* positions() of four keys at once, their hash chains interleaved step by step (the portable path). */
static void positions4(const hoodie_bloom *b, const uint8_t *const *key, const size_t *len, int32_t (*out)[VW])
{
    uint32_t mixed[4][PREMIX_BLOCKS], tail[4], seed[4] = { 0, 0, 0, 0 };
    size_t len4[4];
    const uint64_t c = fastmod_c((uint32_t)b->vector_size);
    for (int j = 0; j < 4; j++) {
        len4[j] = len[j] >> 2;
        for (size_t i = 0; i < len4[j]; i++) mixed[j][i] = premix(le32(key[j] + 4 * i));
        tail[j] = tail_of(key[j], len[j]);
    }
    for (int32_t i = 0; i < b->nb_hash; i++) {
        for (int j = 0; j < 4; j++) {
            uint32_t h = seed[j] ^ (uint32_t)len[j];
            for (size_t q = 0; q < len4[j]; q++) h = h * MURMUR_M ^ mixed[j][q];
            if (len[j] & 3) h = (h ^ tail[j]) * MURMUR_M;
            h ^= h >> 13;
            h *= MURMUR_M;
            h ^= h >> 15;
            seed[j] = h;
            out[i][j] = abs_mod(h, (uint32_t)b->vector_size, c);
        }
    }
}

/*
 * AVX2: the chains of 16 keys at once, as two vectors of 8 lanes (GCC/Clang vector extensions; the build targets
 * baseline x86-64, so these functions carry target("avx2") and run only where the CPU has it). Lanes whose keys
 * are shorter than the longest of the batch keep their hash through the extra blocks (a mask), so mixed lengths
 * need no fallback; a batch of one length (the common case) runs without the masks.
 */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define BLOOM_AVX2 1
#include <immintrin.h>

#define NV (VW / 8)
#define AVX2_FN __attribute__((target("avx2")))
#define AVX2_INLINE static inline __attribute__((always_inline, target("avx2")))
typedef uint32_t v8u __attribute__((vector_size(32)));

/* |h| mod m of 8 lanes (h as int32, |INT_MIN| = 2^31 as unsigned): the quotient from the 32-bit reciprocal
 * inv = floor(2^32 / m) is q or q - 1 (a <= 2^31, m >= 2), so one conditional subtraction (an unsigned min) ends it. */
AVX2_INLINE v8u abs_mod8(v8u h, __m256i inv, __m256i mv)
{
    __m256i a = _mm256_abs_epi32((__m256i)h);
    __m256i pe = _mm256_mul_epu32(a, inv);
    __m256i po = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), inv);
    __m256i q = _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
    __m256i r = _mm256_sub_epi32(a, _mm256_mullo_epi32(q, mv));
    return (v8u)_mm256_min_epu32(r, _mm256_sub_epi32(r, mv));
}

typedef struct lanes8 {
    v8u mixed[PREMIX_BLOCKS][NV]; /* premixed blocks (0 past a lane's length) */
    v8u live[PREMIX_BLOCKS][NV];  /* masked batches: all ones where the block is within the lane's key */
    v8u len[NV], tail[NV], tail_live[NV];
    size_t blocks;                /* the longest key's */
} lanes8;

AVX2_INLINE void chains8(const lanes8 *l, int32_t nb_hash, uint32_t m, int masked, int has_tail, int32_t (*out)[VW])
{
    const __m256i inv = _mm256_set1_epi32((int)(uint32_t)(UINT64_C(0x100000000) / m)), mv = _mm256_set1_epi32((int)m);
    v8u h[NV];
    for (int v = 0; v < NV; v++) h[v] = (v8u){ 0 };
    for (int32_t i = 0; i < nb_hash; i++) {
        for (int v = 0; v < NV; v++) h[v] ^= l->len[v];
        for (size_t j = 0; j < l->blocks; j++)
            for (int v = 0; v < NV; v++) {
                v8u x = h[v] * MURMUR_M ^ l->mixed[j][v];
                h[v] = masked ? (x & l->live[j][v]) | (h[v] & ~l->live[j][v]) : x;
            }
        if (has_tail)
            for (int v = 0; v < NV; v++) {
                v8u x = (h[v] ^ l->tail[v]) * MURMUR_M;
                h[v] = masked ? (x & l->tail_live[v]) | (h[v] & ~l->tail_live[v]) : x;
            }
        for (int v = 0; v < NV; v++) {
            h[v] ^= h[v] >> 13;
            h[v] *= MURMUR_M;
            h[v] ^= h[v] >> 15;
            _mm256_storeu_si256((__m256i *)&out[i][8 * v], (__m256i)abs_mod8(h[v], inv, mv));
        }
    }
}

static AVX2_FN void chains8_uniform(const lanes8 *l, int32_t k, uint32_t m, int32_t (*out)[VW])
{
    chains8(l, k, m, 0, 0, out);
}
static AVX2_FN void chains8_uniform_tail(const lanes8 *l, int32_t k, uint32_t m, int32_t (*out)[VW])
{
    chains8(l, k, m, 0, 1, out);
}
static AVX2_FN void chains8_masked(const lanes8 *l, int32_t k, uint32_t m, int32_t (*out)[VW])
{
    chains8(l, k, m, 1, 1, out);
}

/* Positions of n <= VW keys (lanes past n repeat key 0); 0 if this batch needs the scalar path (a key longer than
 * the premix buffer, or m < 2). */
static AVX2_FN int positions_avx2(const hoodie_bloom *b, const uint8_t *const *key, const size_t *len, size_t n,
                                  int32_t (*out)[VW])
{
    if (b->vector_size < 2) return 0;
    size_t blocks = 0;
    int uniform = 1;
    for (size_t j = 0; j < n; j++) {
        if (len[j] >> 2 > PREMIX_BLOCKS) return 0;
        if (len[j] >> 2 > blocks) blocks = len[j] >> 2;
        uniform &= len[j] == len[0];
    }
    lanes8 l;
    uint32_t raw[PREMIX_BLOCKS][VW] __attribute__((aligned(32)));
    uint32_t lens[VW] __attribute__((aligned(32))), tails[VW] __attribute__((aligned(32)));
    uint32_t live[PREMIX_BLOCKS + 1][VW] __attribute__((aligned(32)));
    for (size_t lane = 0; lane < VW; lane++) {
        size_t src = lane < n ? lane : 0, kl = len[src], k4 = kl >> 2;
        const uint8_t *k = key[src];
        for (size_t j = 0; j < k4; j++) memcpy(&raw[j][lane], k + 4 * j, 4); /* x86: little-endian */
        for (size_t j = k4; j < blocks; j++) raw[j][lane] = 0;
        lens[lane] = (uint32_t)kl;
        tails[lane] = tail_of(k, kl);
        if (!uniform) {
            for (size_t j = 0; j < blocks; j++) live[j][lane] = j < k4 ? UINT32_MAX : 0;
            live[PREMIX_BLOCKS][lane] = kl & 3 ? UINT32_MAX : 0;
        }
    }
    l.blocks = blocks;
    for (int v = 0; v < NV; v++) {
        memcpy(&l.len[v], &lens[8 * v], sizeof l.len[v]);
        memcpy(&l.tail[v], &tails[8 * v], sizeof l.tail[v]);
        for (size_t j = 0; j < blocks; j++) {
            v8u x;
            memcpy(&x, &raw[j][8 * v], sizeof x);
            x *= MURMUR_M;
            x ^= x >> 24;
            l.mixed[j][v] = x * MURMUR_M;
            if (!uniform) memcpy(&l.live[j][v], &live[j][8 * v], sizeof x);
        }
        if (!uniform) memcpy(&l.tail_live[v], &live[PREMIX_BLOCKS][8 * v], sizeof l.tail_live[v]);
    }
    if (!uniform) chains8_masked(&l, b->nb_hash, (uint32_t)b->vector_size, out);
    else if (len[0] & 3) chains8_uniform_tail(&l, b->nb_hash, (uint32_t)b->vector_size, out);
    else chains8_uniform(&l, b->nb_hash, (uint32_t)b->vector_size, out);
    return 1;
}

/* Set the positions of n <= VW keys, key j's in rows[j]: byte index and bit mask computed 16 at a time. */
static AVX2_FN void set_avx2(int32_t nb_hash, int32_t (*pos)[VW], uint8_t *const *rows, size_t n)
{
    uint32_t idx[VW] __attribute__((aligned(32))), bit[VW] __attribute__((aligned(32)));
    for (int32_t q = 0; q < nb_hash; q++) {
        for (int v = 0; v < NV; v++) {
            v8u p;
            memcpy(&p, &pos[q][8 * v], sizeof p);
            v8u i = p >> 3, m = (v8u){ 1, 1, 1, 1, 1, 1, 1, 1 } << (p & 7);
            memcpy(&idx[8 * v], &i, sizeof i);
            memcpy(&bit[8 * v], &m, sizeof m);
        }
        if (n == VW) {
#pragma GCC unroll 16
            for (size_t j = 0; j < VW; j++) rows[j][idx[j]] |= (uint8_t)bit[j];
        } else {
            for (size_t j = 0; j < n; j++) rows[j][idx[j]] |= (uint8_t)bit[j];
        }
    }
}
#endif

static int simd_enabled = 1; /* changed only by tests and benchmarks (hoodie_bloom__simd) */

/* The AVX2 path: allowed, and the CPU has it (__builtin_cpu_supports reads what libgcc probed at start-up). */
#ifdef BLOOM_AVX2
static int use_avx2(void) { return simd_enabled && __builtin_cpu_supports("avx2"); }
#endif

int hoodie_bloom__simd(int on)
{
    int was = simd_enabled;
    simd_enabled = on != 0;
    return was;
}

/* Positions of n <= VW keys, the fastest way this CPU has. */
static void positions_many(const hoodie_bloom *b, const uint8_t *const *key, const size_t *len, size_t n,
                           int32_t (*out)[VW])
{
#ifdef BLOOM_AVX2
    if (use_avx2() && positions_avx2(b, key, len, n, out)) return;
#endif
    size_t j = 0;
    for (; j + 4 <= n; j += 4)
        if (len[j] <= 4 * PREMIX_BLOCKS && len[j + 1] <= 4 * PREMIX_BLOCKS && len[j + 2] <= 4 * PREMIX_BLOCKS &&
            len[j + 3] <= 4 * PREMIX_BLOCKS) {
            int32_t tmp[256][VW];
            positions4(b, key + j, len + j, tmp);
            for (int32_t i = 0; i < b->nb_hash; i++) memcpy(&out[i][j], tmp[i], 4 * sizeof(int32_t));
        } else {
            for (size_t q = j; q < j + 4; q++) positions(b, key[q], len[q], out, (int)q);
        }
    for (; j < n; j++) positions(b, key[j], len[j], out, (int)j);
}

static hoodie_status next_row(hoodie_bloom *b, uint8_t **row);

hoodie_status hoodie_bloom_resume(hoodie_bloom *b, const hoodie_bloom *like, int64_t keys)
{
    if (b->type != HOODIE_BLOOM_DYNAMIC_V0 || like->type != HOODIE_BLOOM_DYNAMIC_V0 || b->nb_hash != like->nb_hash ||
        b->vector_size != like->vector_size || b->nr != like->nr || keys < 0)
        return HOODIE_EINVAL;
    /* next_row()'s bookkeeping replayed from an empty filter */
    int32_t rows = 1, cur = 0, reached = 0;
    uint32_t rr = 0;
    for (int64_t i = 0; i < keys; i++) {
        if (reached) rr++;
        else if (cur >= b->nr && (int64_t)rows * b->nr >= like->max_nr) reached = 1;
        else if (cur >= b->nr) { rows++; cur = 0; }
        cur++;
    }
    if (rows != b->rows || cur != b->current_nb_record) return HOODIE_EINVAL;
    b->max_nr = like->max_nr;
    b->reached_max = reached;
    b->round_robin = rr;
    return HOODIE_OK;
}

int hoodie_bloom_continue(hoodie_bloom *b, const char *text, const char *type_code, int64_t keys)
{
    hoodie_bloom old;
    if (!text || !type_code || strcmp(type_code, "DYNAMIC_V0")) return 0;
    if (hoodie_bloom_from_base64(&old, text, strlen(text), type_code, "footer filter") < 0) {
        hoodie_error_clear();
        return 0;
    }
    if (hoodie_bloom_resume(&old, b, keys) < 0) {
        hoodie_bloom_dispose(&old);
        return 0;
    }
    hoodie_bloom_dispose(b);
    *b = old;
    return 1;
}

hoodie_status hoodie_bloom_add(hoodie_bloom *b, const void *key, size_t len)
{
    uint8_t *row;
    HOODIE_TRY(next_row(b, &row));
    chain ch;
    chain_init(&ch, b, key, len);
    for (int32_t i = 0; i < b->nb_hash; i++) {
        int32_t p = chain_next(&ch);
        row[p >> 3] |= (uint8_t)(1u << (p & 7));
    }
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

/*
 * Setting the bits is about half of the time: 30 byte read-modify-writes per key are bound by the store rate,
 * and Hudi's rows (316 KiB each, two of them) outgrow the L2 cache. Prefetching the next batch's bytes while
 * setting this one's was measured slower (the prefetches cost as much as the misses they hide).
 */
hoodie_status hoodie_bloom_add_many(hoodie_bloom *b, const uint8_t *const *keys, const size_t *lens, size_t n)
{
    int32_t pos[256][VW];
    uint8_t *rows[VW];
    if (b->nb_hash > 256) {
        for (size_t i = 0; i < n; i++) HOODIE_TRY(hoodie_bloom_add(b, keys[i], lens[i]));
        return HOODIE_OK;
    }
    for (size_t i = 0; i < n; i += VW) {
        size_t m = n - i < VW ? n - i : VW;
        positions_many(b, keys + i, lens + i, m, pos);
        for (size_t j = 0; j < m; j++) HOODIE_TRY(next_row(b, &rows[j]));
#ifdef BLOOM_AVX2
        if (use_avx2()) {
            set_avx2(b->nb_hash, pos, rows, m);
            continue;
        }
#endif
        for (size_t j = 0; j < m; j++)
            for (int32_t q = 0; q < b->nb_hash; q++) rows[j][pos[q][j] >> 3] |= (uint8_t)(1u << (pos[q][j] & 7));
    }
    return HOODIE_OK;
}

/* A key may be present when every one of its positions is set in some row. Positions are computed as far as the
 * rows need them (an absent key usually stops at the first or second), and once for all rows. */
int hoodie_bloom_test(const hoodie_bloom *b, const void *key, size_t len)
{
    int32_t pos[256], have = 0;
    const int cache = b->nb_hash <= 256;
    chain ch;
    for (int32_t r = 0; r < b->rows; r++) {
        const uint8_t *row = b->bits[r];
        if (r == 0 || !cache) chain_init(&ch, b, key, len);
        int32_t i = 0;
        for (; i < b->nb_hash; i++) {
            int32_t p = cache && i < have ? pos[i] : chain_next(&ch);
            if (cache && i == have) pos[have++] = p;
            if (!((row[p >> 3] >> (p & 7)) & 1)) break;
        }
        if (i == b->nb_hash) return 1;
    }
    return 0;
}

/*
 * The batch form: all k positions of 16 keys at once (the AVX2 path where there is one), then the bits of a row
 * read 8 at a time without a branch between them, so the reads overlap instead of waiting on each other. Absent
 * keys pay for positions a single test would not compute; present keys (an upsert's updates) no longer wait on
 * 30 misses in a row.
 */
void hoodie_bloom_test_many(const hoodie_bloom *b, const uint8_t *const *keys, const size_t *lens, size_t n,
                            uint8_t *maybe)
{
    int32_t pos[256][VW];
    const int32_t k = b->nb_hash;
    if (k > 256) {
        for (size_t i = 0; i < n; i++) maybe[i] = (uint8_t)hoodie_bloom_test(b, keys[i], lens[i]);
        return;
    }
    for (size_t i = 0; i < n; i += VW) {
        size_t m = n - i < VW ? n - i : VW;
        positions_many(b, keys + i, lens + i, m, pos);
        for (size_t j = 0; j < m; j++) {
            unsigned all = 0;
            for (int32_t r = 0; r < b->rows && !all; r++) {
                const uint8_t *row = b->bits[r];
                all = 1;
                /* 8 reads between branches: a key absent from the row rarely has 8 of its bits set */
                for (int32_t q0 = 0; q0 < k && (all & 1); q0 += 8)
                    for (int32_t q = q0; q < q0 + 8 && q < k; q++) all &= (unsigned)row[pos[q][j] >> 3] >> (pos[q][j] & 7);
                all &= 1;
            }
            maybe[i + j] = (uint8_t)(all & 1);
        }
    }
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

/* ---- tests on the Base64 text ---- */

/* The 13-byte header of a filter or row at decoded offset `at`: k and m, or -1 when it is not a valid one. */
static int text_header(const char *text, size_t at, int32_t *k, int32_t *m)
{
    uint8_t h[13];
    for (size_t i = 0; i < 13; i++) {
        int v = hoodie_base64_byte_at(text, at + i);
        if (v < 0) return -1;
        h[i] = (uint8_t)v;
    }
    uint32_t version = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
    *k = (int32_t)((uint32_t)h[4] << 24 | (uint32_t)h[5] << 16 | (uint32_t)h[6] << 8 | h[7]);
    *m = (int32_t)((uint32_t)h[9] << 24 | (uint32_t)h[10] << 16 | (uint32_t)h[11] << 8 | h[12]);
    if (version != 0xffffffffu || h[8] != 1 || *k <= 0 || *k > 1000 || *m <= 0) return -1;
    return 0;
}

static int text_be32(const char *text, size_t at, int32_t *v)
{
    uint32_t x = 0;
    for (size_t i = 0; i < 4; i++) {
        int b = hoodie_base64_byte_at(text, at + i);
        if (b < 0) return -1;
        x = x << 8 | (uint32_t)b;
    }
    *v = (int32_t)x;
    return 0;
}

hoodie_status hoodie_bloom_text_open(hoodie_bloom_text *t, const char *text, size_t len, const char *type_code,
                                     const char *what)
{
    memset(t, 0, sizeof *t);
    int dynamic;
    if (!type_code || !strcmp(type_code, "SIMPLE")) dynamic = 0;
    else if (!strcmp(type_code, "DYNAMIC_V0")) dynamic = 1;
    else return HOODIE_EINVAL;
    size_t head = dynamic ? 25 : 13; /* the filter's header (and the dynamic one's nr, current, rows) */
    if (len % 4 || len / 4 * 3 < head + 1) return HOODIE_EINVAL;
    int32_t k, m, rows = 1;
    if (text_header(text, 0, &k, &m) < 0) return HOODIE_EINVAL;
    if (dynamic && (text_be32(text, 21, &rows) < 0 || rows <= 0)) return HOODIE_EINVAL;
    uint64_t rb = ((uint64_t)m + 7) / 8, stride = dynamic ? 13 + rb : rb;
    uint64_t raw = dynamic ? head + (uint64_t)rows * stride : head + rb;
    if (raw > (uint64_t)len || (raw + 2) / 3 * 4 != (uint64_t)len) return HOODIE_EINVAL;
    for (int32_t r = 0; dynamic && r < rows; r++) {
        int32_t rk, rm;
        if (text_header(text, head + (size_t)r * (size_t)stride, &rk, &rm) < 0 || rk != k || rm != m)
            return HOODIE_EINVAL;
    }
    t->text = text;
    t->what = what;
    t->nb_hash = k;
    t->vector_size = m;
    t->rows = rows;
    t->first = dynamic ? head + 13 : head;
    t->stride = (size_t)stride;
    return HOODIE_OK;
}

int hoodie_bloom_text_test(const hoodie_bloom_text *t, const void *key, size_t len)
{
    int32_t pos[256], have = 0;
    const int cache = t->nb_hash <= 256;
    chain ch;
    for (int32_t r = 0; r < t->rows; r++) {
        size_t row = t->first + (size_t)r * t->stride;
        if (r == 0 || !cache) chain_init_m(&ch, t->vector_size, key, len);
        int32_t i = 0;
        for (; i < t->nb_hash; i++) {
            int32_t p = cache && i < have ? pos[i] : chain_next(&ch);
            if (cache && i == have) pos[have++] = p;
            int v = hoodie_base64_byte_at(t->text, row + (size_t)(p >> 3));
            if (v < 0) { /* one of the two characters of that byte */
                size_t b = row + (size_t)(p >> 3), at = b / 3 * 4 + b % 3;
                if (hoodie_base64_rev[(uint8_t)t->text[at]] >= 0) at++;
                return HOODIE_CORRUPT("%s: bloom filter: invalid base64 character 0x%02x at offset %zu",
                                      t->what ? t->what : "", (uint8_t)t->text[at], at);
            }
            if (!((v >> (p & 7)) & 1)) break;
        }
        if (i == t->nb_hash) return 1;
    }
    return 0;
}
